// The steps of a workflow in the order they run, reordered by drag or by keyboard with
// dnd-kit (its KeyboardSensor: focus a step's handle, Space picks it up, the arrows move
// it, Space drops it, Escape cancels; each move is announced to screen readers). A drop
// PATCHes the step's `order`, the way the API orders steps: the steps in between shift by one.
import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import { SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { Button } from '../../../components/ui';
import type { Step } from '../api/workflows';
import { kindLabel } from './step-form';

interface StepListProps {
  steps: Step[];
  /** Why the person may not change steps; null when they may. */
  changeBlock: string | null;
  onMove: (step: Step, order: number) => void;
  onEdit: (step: Step) => void;
  onDelete: (step: Step) => void;
  /** A step's settings as label and text. */
  describe: (step: Step) => Array<[string, string]>;
}

const INSTRUCTIONS =
  'To move a step with the keyboard, press Space or Enter on its handle to pick it up, the up and down arrows to move it, ' +
  'Space or Enter to drop it there, or Escape to put it back.';

export function StepList({ steps, changeBlock, onMove, onEdit, onDelete, describe }: StepListProps) {
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const count = steps.length;
  const positionOf = (id: UniqueIdentifier) => steps.findIndex((step) => step.sid === id) + 1;
  const nameOf = (id: UniqueIdentifier) => steps.find((step) => step.sid === id)?.name ?? '';
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up step ${nameOf(active.id)}, at position ${positionOf(active.id)} of ${count}.`,
    // Over its own place (as at pick-up) it says nothing new: the pick-up message stays.
    onDragOver: ({ active, over }) =>
      over?.id === active.id
        ? undefined
        : over
          ? `Step ${nameOf(active.id)} is over position ${positionOf(over.id)} of ${count}.`
          : `Step ${nameOf(active.id)} is over no position.`,
    onDragEnd: ({ active, over }) =>
      over ? `Step ${nameOf(active.id)} dropped at position ${positionOf(over.id)} of ${count}.` : `Step ${nameOf(active.id)} dropped where it was.`,
    onDragCancel: ({ active }) => `Moving cancelled: step ${nameOf(active.id)} is back at position ${positionOf(active.id)} of ${count}.`,
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const step = steps.find((s) => s.sid === active.id);
    if (step) onMove(step, positionOf(over.id));
  };

  if (count === 0) return null;
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={onDragEnd}
      accessibility={{ announcements, screenReaderInstructions: { draggable: INSTRUCTIONS } }}
    >
      <SortableContext items={steps.map((step) => step.sid)} strategy={verticalListSortingStrategy} disabled={Boolean(changeBlock)}>
        <ol className="steps" aria-label="Steps, in the order they run">
          {steps.map((step, index) => (
            <StepItem
              key={step.sid}
              step={step}
              position={index + 1}
              changeBlock={changeBlock}
              settings={describe(step)}
              onEdit={() => onEdit(step)}
              onDelete={() => onDelete(step)}
            />
          ))}
        </ol>
      </SortableContext>
    </DndContext>
  );
}

interface StepItemProps {
  step: Step;
  position: number;
  changeBlock: string | null;
  settings: Array<[string, string]>;
  onEdit: () => void;
  onDelete: () => void;
}

function StepItem({ step, position, changeBlock, settings, onEdit, onDelete }: StepItemProps) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({
    id: step.sid,
    disabled: Boolean(changeBlock),
  });
  const style = { transform: CSS.Translate.toString(transform), transition };
  return (
    <li ref={setNodeRef} style={style} className={`step${isDragging ? ' is-dragging' : ''}`}>
      {!changeBlock && (
        <button
          type="button"
          ref={setActivatorNodeRef}
          className="step-handle"
          {...attributes}
          {...listeners}
          aria-label={`Move step ${position}: ${step.name}`}
        >
          <span aria-hidden="true">⠿</span>
        </button>
      )}
      <div className="step-body">
        <div>
          <span className="step-order">{position}.</span> <strong>{step.name}</strong>{' '}
          <span className="muted">
            {step.widget.name}: {kindLabel(step.kind)}
          </span>
        </div>
        {step.description && <div className="muted">{step.description}</div>}
        {settings.length > 0 && (
          <dl className="settings">
            {settings.map(([label, text]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{text}</dd>
              </div>
            ))}
          </dl>
        )}
      </div>
      <div className="actions">
        <Button aria-label={`Edit step ${step.name}`} disabledReason={changeBlock} onClick={onEdit}>
          Edit
        </Button>
        <Button aria-label={`Delete step ${step.name}`} variant="danger" disabledReason={changeBlock} onClick={onDelete}>
          Delete
        </Button>
      </div>
    </li>
  );
}
