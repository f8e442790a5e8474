import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import {
  ApiError,
  PAGE_SIZES,
  createApiClient,
  deleteApiClient,
  generateApiClientSecret,
  getApiClient,
  listApiClients,
  revokeApiClientSecret,
  type Access,
  type ApiClient,
  type ApiClientPage,
  type ListQuery,
  type OrderBy,
  type OrderDirection,
  type PageSize,
} from './api.js';
import { ConfirmDialog, SecretDialog, type Confirmation, type ShownSecret } from './dialogs.js';
import { formatDate, formatDuration, formatTime, isoTime } from './format.js';

const DEFAULT_QUERY: ListQuery = { order_by: 'name', order_direction: 'asc', offset: 0, max_items: 10 };

const COLUMNS: ReadonlyArray<{ label: string; sort?: OrderBy }> = [
  { label: 'Client Name', sort: 'name' },
  { label: 'Client ID', sort: 'client_id' },
  { label: 'Created On' },
  { label: 'Status' },
  { label: 'Secret Age', sort: 'secret_age' },
  { label: 'Last Activity', sort: 'last_activity' },
];

const ORDER_BY: readonly OrderBy[] = ['name', 'client_id', 'secret_age', 'last_activity'];
const DIRECTIONS: readonly OrderDirection[] = ['asc', 'desc'];

const pick = <T extends string | number>(allowed: readonly T[], raw: string | null, fallback: T): T =>
  allowed.find((value) => String(value) === raw) ?? fallback;

/** The table's state lives in the address, so a reload or a shared link shows the same page in the same order. */
function readQuery(): ListQuery {
  const params = new URLSearchParams(window.location.search);
  const offset = Number(params.get('offset'));
  return {
    order_by: pick(ORDER_BY, params.get('order_by'), DEFAULT_QUERY.order_by),
    order_direction: pick(DIRECTIONS, params.get('order_direction'), DEFAULT_QUERY.order_direction),
    max_items: pick(PAGE_SIZES, params.get('max_items'), DEFAULT_QUERY.max_items),
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
  };
}

function writeQuery(query: ListQuery): void {
  const params = new URLSearchParams();
  for (const key of ['order_by', 'order_direction', 'max_items', 'offset'] as const) {
    if (query[key] !== DEFAULT_QUERY[key]) params.set(key, String(query[key]));
  }
  const search = params.size > 0 ? `?${params}` : '';
  if (search !== window.location.search) window.history.replaceState(null, '', `${window.location.pathname}${search}`);
}

const lastPageOffset = (total: number, size: number) => Math.max(0, Math.floor((total - 1) / size) * size);

/**
 * The current state of each client created on this page that the page of the table does not show (it sorts onto
 * another page): a client deleted meanwhile is left out.
 */
async function createdElsewhere(created: readonly string[], page: ApiClientPage): Promise<ApiClient[]> {
  const missing = created.filter((clientId) => !page.items.some((client) => client.client_id === clientId));
  const found = await Promise.all(
    missing.map((clientId) =>
      getApiClient(clientId).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }),
    ),
  );
  return found.filter((client): client is ApiClient => client !== null);
}

interface Props {
  report(error: unknown): void;
  clearError(): void;
}

/**
 * The API clients, as the user's access allows (the session's `access`: their groups decide): the table with every
 * action, the table alone, or only why not; the reason is the server's own sentence.
 */
export function ApiClientsPage({ access, ...props }: Props & { access: Access }) {
  if (access.api_clients === 'none') {
    return (
      <main className="clients">
        <div className="page-head">
          <h1>API clients</h1>
        </div>
        <p className="banner banner-info access-note" role="note">
          {access.reason}
        </p>
      </main>
    );
  }
  return <ClientsTable {...props} manage={access.api_clients === 'manage'} reason={access.reason} />;
}

function ClientsTable({ report, clearError, manage, reason }: Props & { manage: boolean; reason: string }) {
  const [query, setQuery] = useState<ListQuery>(readQuery);
  // The page on screen with the query that produced it: the range and page numbers describe the rows shown, not a
  // request still in flight.
  const [loaded, setLoaded] = useState<{ page: ApiClientPage; query: ListQuery; pinned: ApiClient[] } | null>(null);
  const page = loaded?.page ?? null;
  // Clients created here, newest first: each stays in view above the table's page, wherever the sort puts it, until
  // the console is loaded again, so the user sees the client they just made.
  const [created, setCreated] = useState<readonly string[]>([]);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);

  useEffect(() => writeQuery(query), [query]);

  useEffect(() => {
    // Answers can arrive out of order when the user clicks quickly; only the latest request may fill the table.
    let latest = true;
    setLoading(true);
    listApiClients(query)
      .then(async (result) => {
        if (!latest) return;
        if (result.count === 0 && result.total > 0 && query.offset > 0) {
          // The page emptied under us (its last client was deleted): show the last page that has clients.
          setQuery((current) => ({ ...current, offset: lastPageOffset(result.total, current.max_items) }));
          return;
        }
        const pinned = await createdElsewhere(created, result);
        if (latest) setLoaded({ page: result, query, pinned });
      })
      .catch((error: unknown) => latest && report(error))
      .finally(() => latest && setLoading(false));
    return () => {
      latest = false;
    };
  }, [query, generation, created, report]);

  /**
   * Runs one change, reports its failure, and reloads the table either way, since the state may have moved.
   * Resolves to whether it succeeded; it never rejects.
   */
  const run = async (clientId: string | null, step: () => Promise<void>): Promise<boolean> => {
    clearError();
    setNotice(null);
    setBusyId(clientId);
    try {
      await step();
      return true;
    } catch (error) {
      report(error);
      return false;
    } finally {
      setBusyId(null);
      reload();
    }
  };

  const generate = async (client: ApiClient) => {
    await run(client.client_id, async () => {
      const generated = await generateApiClientSecret(client.client_id);
      setShown({ title: `New secret for ${client.name}`, clientId: generated.client_id, secret: generated.client_secret });
    });
  };

  const askRegenerate = (client: ApiClient) =>
    setConfirmation({
      title: `Regenerate the secret of ${client.name}?`,
      message: 'A new secret replaces the current one, which stops working at once: scripts using it get 401 until they are given the new secret.',
      confirmLabel: 'Regenerate secret',
      action: () => generate(client),
    });

  const askRevoke = (client: ApiClient) =>
    setConfirmation({
      title: `Revoke the secret of ${client.name}?`,
      message: 'The secret stops working at once: scripts using it get 401. The client stays, and you can generate a new secret for it later.',
      confirmLabel: 'Revoke secret',
      action: async () => {
        await run(client.client_id, async () => {
          await revokeApiClientSecret(client.client_id);
          setNotice(`The secret of ${client.name} is revoked.`);
        });
      },
    });

  const askDelete = (client: ApiClient) =>
    setConfirmation({
      title: `Delete ${client.name}?`,
      message: 'The client and its secret are removed for good: scripts using it get 401. This cannot be undone.',
      confirmLabel: 'Delete client',
      action: async () => {
        await run(client.client_id, async () => {
          await deleteApiClient(client.client_id);
          setCreated((current) => current.filter((clientId) => clientId !== client.client_id));
          setNotice(`${client.name} is deleted.`);
        });
      },
    });

  const create = (name: string) =>
    run(null, async () => {
      const client = await createApiClient(name);
      setCreated((current) => [client.client_id, ...current]);
      setNotice(`${client.name} is created with its first secret.`);
      // Asked for with the client (with_secret), so the answer always has it; guarded all the same.
      if (client.client_secret !== undefined) setShown({ title: `${client.name} is created`, clientId: client.client_id, secret: client.client_secret });
    });

  const sortBy = (column: OrderBy) =>
    setQuery((current) => ({
      ...current,
      order_by: column,
      // A second click on the sorted column reverses it; a new column starts ascending.
      order_direction: current.order_by === column && current.order_direction === 'asc' ? 'desc' : 'asc',
      offset: 0,
    }));

  const total = page?.total ?? 0;
  const sortedColumn = COLUMNS.find((column) => column.sort === query.order_by)?.label ?? '';

  return (
    <main className="clients">
      <div className="page-head">
        <h1>API clients</h1>
        <p className="muted">
          Scripts call the compliance API with an API client's ID and secret as HTTP Basic credentials. Use one client per use case, so each secret can be
          rotated on its own.
        </p>
      </div>

      {manage ? (
        <CreateForm onCreate={create} />
      ) : (
        <p className="banner banner-info access-note" role="note">
          {reason}
        </p>
      )}

      {notice && (
        <p className="banner banner-success" role="status">
          {notice}
        </p>
      )}

      {/* The roles restate the table's own: a narrow screen shows it as cards (display: block), and some browsers then
          drop a table's semantics, leaving screen readers without rows, cells and headers. */}
      <div className="table-wrap">
        <table role="table" aria-busy={loading}>
          <caption className="visually-hidden">
            API clients, sorted by {sortedColumn}, {query.order_direction === 'asc' ? 'ascending' : 'descending'}
          </caption>
          <thead role="rowgroup">
            <tr role="row">
              {COLUMNS.map((column) => {
                const active = column.sort !== undefined && column.sort === query.order_by;
                const direction = query.order_direction === 'asc' ? 'ascending' : 'descending';
                return (
                  <th key={column.label} role="columnheader" scope="col" aria-sort={active ? direction : undefined}>
                    {column.sort ? (
                      <button type="button" className={`sort${active ? ' sorted' : ''}`} onClick={() => sortBy(column.sort!)}>
                        {column.label}
                        <span className="sort-mark" aria-hidden="true">
                          {active ? (query.order_direction === 'asc' ? '▲' : '▼') : '↕'}
                        </span>
                      </button>
                    ) : (
                      column.label
                    )}
                  </th>
                );
              })}
              <th role="columnheader" scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          {loaded && loaded.pinned.length > 0 && (
            <tbody role="rowgroup" className="pinned" aria-label="Created just now">
              <tr role="row" className="pinned-note">
                <td role="cell" colSpan={COLUMNS.length + 1}>Created just now (in this order, on another page)</td>
              </tr>
              {loaded.pinned.map((client) => (
                <ClientRow
                  key={client.client_id}
                  client={client}
                  manage={manage}
                  busy={busyId === client.client_id}
                  onGenerate={() => (client.status === 'Active' ? askRegenerate(client) : generate(client))}
                  onRevoke={() => askRevoke(client)}
                  onDelete={() => askDelete(client)}
                />
              ))}
            </tbody>
          )}
          <tbody role="rowgroup">
            {page?.items.map((client) => (
              <ClientRow
                key={client.client_id}
                client={client}
                manage={manage}
                busy={busyId === client.client_id}
                onGenerate={() => (client.status === 'Active' ? askRegenerate(client) : generate(client))}
                onRevoke={() => askRevoke(client)}
                onDelete={() => askDelete(client)}
              />
            ))}
            {page && page.items.length === 0 && (
              <tr role="row">
                <td role="cell" colSpan={COLUMNS.length + 1} className="empty">
                  {manage ? 'No API clients yet. Create one above: its secret is shown once, as it is created.' : 'No API clients yet.'}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>

      {loaded && total > 0 && (
        <Pager page={loaded.page} query={loaded.query} pageSize={query.max_items} onChange={(change) => setQuery((current) => ({ ...current, ...change }))} />
      )}

      {confirmation && <ConfirmDialog confirmation={confirmation} onClose={() => setConfirmation(null)} />}
      {shown && <SecretDialog shown={shown} onClose={() => setShown(null)} />}
    </main>
  );
}

function CreateForm({ onCreate }: { onCreate(name: string): Promise<boolean> }) {
  const [name, setName] = useState('');
  const [pending, setPending] = useState(false);
  const inputId = useId();
  const headingId = useId();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return;
    setPending(true);
    try {
      // On failure the name stays, so the user can correct it instead of typing it again.
      if (await onCreate(trimmed)) setName('');
    } finally {
      setPending(false);
    }
  };
  return (
    <section className="create" aria-labelledby={headingId}>
      <h2 id={headingId}>New API client</h2>
      <form onSubmit={submit}>
        <label htmlFor={inputId}>Client name</label>
        <div className="create-row">
          <input id={inputId} name="name" required maxLength={100} placeholder="e.g. ci-pipeline" value={name} onChange={(event) => setName(event.target.value)} />
          <button type="submit" className="primary" disabled={pending}>
            {pending ? 'Creating…' : 'Create client'}
          </button>
        </div>
      </form>
    </section>
  );
}

const STATUS_CLASS: Record<ApiClient['status'], string> = {
  Active: 'status-active',
  Created: 'status-created',
  'Secret Revoked': 'status-revoked',
};

function ClientRow({
  client,
  manage,
  busy,
  onGenerate,
  onRevoke,
  onDelete,
}: {
  client: ApiClient;
  /** Whether the user may change clients: without it the row has no actions. */
  manage: boolean;
  busy: boolean;
  onGenerate(): void;
  onRevoke(): void;
  onDelete(): void;
}) {
  const active = client.status === 'Active';
  return (
    <tr role="row">
      <th role="rowheader" scope="row">{client.name}</th>
      <td role="cell" data-label="Client ID">
        <code>{client.client_id}</code>
      </td>
      <td role="cell" data-label="Created On">
        {/* The day is what the column is for; the exact time is one hover away. */}
        <time dateTime={isoTime(client.created_at)} title={formatTime(client.created_at)}>
          {formatDate(client.created_at)}
        </time>
      </td>
      <td role="cell" data-label="Status">
        <span className={`status ${STATUS_CLASS[client.status]}`}>{client.status}</span>
      </td>
      <td role="cell" data-label="Secret Age">{client.secret_age === null ? <span className="muted" title="No active secret">—</span> : formatDuration(client.secret_age)}</td>
      <td role="cell" data-label="Last Activity">
        {client.last_activity_at === null ? (
          <span className="muted">Never</span>
        ) : (
          <time dateTime={isoTime(client.last_activity_at)}>{formatTime(client.last_activity_at)}</time>
        )}
      </td>
      <td role="cell" className="actions">
        {manage && (
          <div className="row-actions">
            <button type="button" onClick={onGenerate} disabled={busy} aria-label={`${active ? 'Regenerate' : 'Generate'} secret for ${client.name}`}>
              {active ? 'Regenerate secret' : 'Generate secret'}
            </button>
            {active && (
              <button type="button" onClick={onRevoke} disabled={busy} aria-label={`Revoke secret of ${client.name}`}>
                Revoke secret
              </button>
            )}
            <button type="button" className="danger-text" onClick={onDelete} disabled={busy} aria-label={`Delete ${client.name}`}>
              Delete
            </button>
          </div>
        )}
      </td>
    </tr>
  );
}

function Pager({ page, query, pageSize, onChange }: { page: ApiClientPage; query: ListQuery; pageSize: PageSize; onChange(change: Partial<ListQuery>): void }) {
  const selectId = useId();
  const first = page.count === 0 ? 0 : query.offset + 1;
  const last = query.offset + page.count;
  const pages = Math.max(1, Math.ceil(page.total / query.max_items));
  const current = Math.floor(query.offset / query.max_items) + 1;
  return (
    <nav className="pager" aria-label="Pages of API clients">
      {/* Every page size shows up to 10 rows alike, so the choice matters only past 10 clients. */}
      {page.total > 10 && (
        <div className="page-size">
          <label htmlFor={selectId}>Rows per page</label>
          <select id={selectId} value={pageSize} onChange={(event) => onChange({ max_items: Number(event.target.value) as PageSize, offset: 0 })}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </div>
      )}
      <p className="range" aria-live="polite">
        Showing {first}–{last} of {page.total}
      </p>
      {pages > 1 && (
        <div className="page-buttons">
          <button type="button" disabled={query.offset === 0} onClick={() => onChange({ offset: Math.max(0, query.offset - query.max_items) })}>
            Previous page
          </button>
          <span>
            Page {current} of {pages}
          </span>
          <button type="button" disabled={!page.is_truncated} onClick={() => onChange({ offset: page.next_offset ?? query.offset + query.max_items })}>
            Next page
          </button>
        </div>
      )}
    </nav>
  );
}
