// The organization's widgets with their prices; Admins add their own.
import { CreateForm } from '../../../components/create-form';
import { useState } from 'react';
import { Checkbox, ErrorMessage, Loading, TableFrame } from '../../../components/ui';
import { CreditsWarning } from '../../../components/credits-warning';
import { useCreateWidget, useWidgets } from '../../../lib/api/widgets';

export function WidgetsPage({ orgSid }: { orgSid: string }) {
  const widgets = useWidgets(orgSid);
  const create = useCreateWidget(orgSid);
  // The price being typed: a price the credits do not cover is warned about before the widget is made.
  const [price, setPrice] = useState('');
  return (
    <main>
      <h1>Widgets</h1>
      {widgets.isPending ? (
        <Loading />
      ) : widgets.error ? (
        <ErrorMessage error={widgets.error} />
      ) : (
        <>
          <TableFrame label="Widgets">
            <table className="data">
              <caption>Widgets and the price of a cell write through each</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Price</th>
                  <th scope="col">Writable on locked rows</th>
                  <th scope="col">Built in</th>
                </tr>
              </thead>
              <tbody>
                {widgets.data.results.map((widget) => (
                  <tr key={widget.sid}>
                    <th scope="row">{widget.name}</th>
                    <td>{widget.kind}</td>
                    <td>{widget.price}</td>
                    <td>{widget.addable_at_readonly ? 'yes' : 'no'}</td>
                    <td>{widget.is_builtin ? 'yes' : 'no'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
          <h2>Add a widget</h2>
          <div
            onInput={(event) => {
              const input = event.target as HTMLInputElement;
              if (input.name === 'price') setPrice(input.value);
            }}
          >
            <CreateForm
              what="widget"
              fields={[
                { name: 'name', label: 'Widget name', required: true },
                { name: 'price', label: 'Price per cell write', hint: 'in dollars, e.g. 0.50', inputMode: 'decimal' },
              ]}
              allowed={widgets.data.add_permission}
              reason="Only the organization's Admins add widgets."
              pending={create.isPending}
              error={create.error}
              onCreate={(values, form) =>
                create.mutate(
                  {
                    name: values.name,
                    ...(values.price ? { price: values.price } : {}),
                    addable_at_readonly: values.addable_at_readonly === 'on',
                  },
                  {
                    onSuccess: () => {
                      form.reset();
                      setPrice('');
                    },
                  },
                )
              }
            >
              <Checkbox name="addable_at_readonly" label="Writable on locked rows" />
              <CreditsWarning orgSid={orgSid} price={price} what="this widget" />
            </CreateForm>
          </div>
        </>
      )}
    </main>
  );
}
