/** Says why a control is disabled: the caller's role may not do it (`denied`: the role that would). */
export function RoleNote({ id, denied }: { id: string; denied: string | null | undefined }) {
  if (!denied) return null;
  return (
    <p id={id} className="muted">
      Your role cannot do this here: {denied}.
    </p>
  );
}
