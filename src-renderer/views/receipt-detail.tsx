import { EmptyState, Page } from '../components/ui';

export function ReceiptDetailView({ id }: { id: number }) {
  return (
    <Page title={`Receipt ${id}`}>
      <EmptyState title="Coming soon" />
    </Page>
  );
}
