import { EmptyState, Page } from '../components/ui';

export function BundlesView({ id }: { id: number | undefined }) {
  return (
    <Page title={id ? `Bundle ${id}` : 'Bundles'}>
      <EmptyState title="Coming soon" />
    </Page>
  );
}
