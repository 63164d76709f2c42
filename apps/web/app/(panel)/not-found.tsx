import { NotFoundBody } from "@/components/panel-header";

/** A panel page whose resource does not exist (or is another organization's): inside the panel's header. */
export default function PanelNotFound() {
  return <NotFoundBody />;
}
