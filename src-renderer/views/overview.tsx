import { EmptyState, Page } from '../components/ui';

export function OverviewView() {
  return (
    <Page title="Overview">
      <EmptyState title="Coming soon" />
    </Page>
  );
}
