// The operator page: reads /api/ with the bearer token the operator typed (kept in sessionStorage) and draws
// the quarantine. Views by URL fragment: '' or '#overview?source=S' (overview, of one source with source=),
// '#cohort?fingerprint=F&parser_version=V&class=C&source=S' (a cohort's open records, with its actions: dispose,
// canary drain), '#record/<dlq_id>' (a record's evidence, replays and stack trace), '#actions' (the actions trail).
// Every value is put in the page as text (textContent), never as HTML. No framework, nothing fetched from another
// origin.
'use strict';

const TOKEN_KEY = 'ingest-quarantine.operator-token';
const COHORT_LIMIT = 50;
const RECORD_LIMIT = 100;

class Refused extends Error {}

function $(id) { return document.getElementById(id); }

function token() { return sessionStorage.getItem(TOKEN_KEY); }

// api(path) GETs; api(path, request) POSTs the request as JSON (an action's preview or the action)
async function api(path, request) {
  const headers = { Authorization: 'Bearer ' + token() };
  const init = { headers: headers, cache: 'no-store' };
  if (request !== undefined) {
    init.method = 'POST';
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(request);
  }
  const response = await fetch(path, init);
  if (response.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    throw new Refused('The API refused that token.');
  }
  let body;
  try { body = await response.json(); } catch (e) { body = {}; }
  if (!response.ok) {
    throw new Error(path.split('?')[0] + ' answered ' + response.status + ': ' + (body.error || response.statusText));
  }
  return body;
}

// el('td', {class: 'n'}, 'text', otherNode): an element whose strings become text nodes.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'dataset') Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function table(id, headings, rows, empty) {
  if (rows.length === 0) return el('p', { class: 'empty', id: id }, empty);
  return el('table', { id: id },
    el('thead', {}, el('tr', {}, headings.map(h => el('th', { class: h.n ? 'n' : null, title: h.title }, h.label || h)))),
    el('tbody', {}, rows));
}

function num(n) { return n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US'); }

// Java's Duration.toString(): PT26H3M4.5S (hours unbounded, parts may be negative) -> seconds
function durationSeconds(iso) {
  const m = /^PT(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?[\d.]+)S)?$/.exec(iso || '');
  if (!m) return null;
  return (Number(m[1] || 0) * 3600) + (Number(m[2] || 0) * 60) + Number(m[3] || 0);
}

// as the commands print ages: 3d 4h, 5h 2m, 4m 10s, 40s
function age(seconds) {
  if (seconds === null || seconds === undefined) return '–';
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
  if (d > 0) return d + 'd ' + h + 'h';
  if (h > 0) return h + 'h ' + m + 'm';
  if (m > 0) return m + 'm ' + (s % 60) + 's';
  return s + 's';
}

function ageSince(instant) { return instant ? age((Date.now() - Date.parse(instant)) / 1000) : '–'; }

function when(instant) { return instant ? instant.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '–'; }

function timeCell(instant) {
  return el('td', { class: 'time', title: instant || '' }, when(instant), instant ? el('span', { class: 'ago' }, ageSince(instant) + ' ago') : null);
}

function cohortHref(c, source) {
  const q = new URLSearchParams();
  q.set('fingerprint', c.error_fingerprint);
  if (c.parser_version) q.set('parser_version', c.parser_version);
  if (c.error_class) q.set('class', c.error_class);
  if (source) q.set('source', source);
  return '#cohort?' + q.toString();
}

function recordHref(dlqId) { return '#record/' + encodeURIComponent(dlqId); }

// --- overview --------------------------------------------------------------------------------------------

// the percentage is the API's coverage_percent, formatted once on the server as the coverage command prints it
function coverageSection(sources, formula, owners) {
  const rows = sources.map(s => {
    const known = s.coverage !== null && s.coverage !== undefined;
    const level = !known ? 'unknown' : s.coverage >= 0.99 ? 'good' : s.coverage >= 0.95 ? 'warn' : 'bad';
    const cov = known
      ? el('td', { class: 'coverage ' + level },
          el('span', { class: 'bar' }, el('span', { class: 'fill', style: null, dataset: { ratio: s.coverage } })),
          el('span', { class: 'pct' }, s.coverage_percent))
      : el('td', { class: 'coverage unknown', title: 'no total: never listed, stated or ingested' }, 'total unknown');
    const hasTotal = s.total !== null && s.total !== undefined;
    const oldest = durationSeconds(s.oldest_open_age);
    return el('tr', { dataset: { source: s.source } },
      el('th', { scope: 'row', class: 'source' }, s.source),
      el('td', { class: 'owner', title: 'sources.' + s.source + '.owner' }, ownerOf(owners, s.source)),
      cov,
      el('td', { class: 'n total' }, known ? num(s.total) : '–'),
      el('td', { class: 'total-by', title: s.total_counted_at || 'no total' },
        hasTotal ? s.total_by + ', ' + age(s.total_age_seconds) + ' ago' : '–'),
      el('td', { class: 'n indexed' }, known ? num(s.indexed) : '–'),
      el('td', { class: 'n open' }, known ? num(s.open_quarantined) : '–'),
      el('td', { class: 'n unindexable' }, known ? num(s.unindexable) : '–'),
      el('td', { class: 'n erased' }, known ? num(s.erased) : '–'),
      el('td', { class: 'n skipped' }, known ? num(s.skipped) : '–'),
      el('td', { class: 'n documents' }, known ? num(s.documents) : '–'),
      el('td', { class: 'n oldest-open' + (oldest !== null && oldest > 7 * 86400 ? ' bad' : ''),
        title: s.oldest_open_at || 'no open record' }, oldest === null ? 'none open' : age(oldest)));
  });
  return el('section', { id: 'coverage-section' },
    el('h2', {}, 'Coverage per source'),
    el('p', { class: 'hint formula' }, formula + '. The total is listed, stated or ingested. Moving a cohort to unindexable or erasing a record does not raise it.'),
    table('coverage', ['source', 'owner', 'coverage', { label: 'total', n: 1 }, 'total from', { label: 'indexed', n: 1 },
      { label: 'open', n: 1 }, { label: 'unindexable', n: 1 }, { label: 'erased', n: 1 }, { label: 'skipped', n: 1 },
      { label: 'documents', n: 1 }, { label: 'oldest open', n: 1 }], rows,
    'No source has reported documents or failures yet.'));
}

function cohortsSection(report, source) {
  const rows = report.cohorts.map(c => el('tr', { dataset: { fingerprint: c.error_fingerprint || '', parserVersion: c.parser_version || '' } },
    el('td', { class: 'fingerprint' }, el('a', { href: cohortHref(c, source), class: 'mono' }, c.error_fingerprint || '(none)'),
      c.older_fingerprint ? el('span', { class: 'stale', title: num(c.older_fingerprint_documents) + ' of its records fingerprinted by an older algorithm than ' + report.running_fingerprint_version + ': bin/ingest-quarantine fingerprints remap recomputes them' }, 'older fingerprint') : null),
    el('td', { class: 'class' }, el('span', { class: 'tag ' + c.error_class }, c.error_class)),
    el('td', { class: 'n documents' }, num(c.documents)),
    el('td', { class: 'n attempts' }, num(c.attempts)),
    timeCell(c.since),
    el('td', { class: 'parser' }, c.parser_version || '–',
      c.stale_parser ? el('span', { class: 'stale', title: 'not the parser running now (' + report.running_parser_version + '): a drain may repair these' }, 'older parser') : null),
    el('td', { class: 'owners' }, ownersText(c.owners)),
    el('td', { class: 'example', title: c.example_message || '' },
      el('span', { class: 'mono' }, c.example_error_type || ''), c.example_message ? ': ' + c.example_message : '')));
  const more = report.cut > 0 ? el('p', { class: 'hint' }, report.cut + ' more cohorts not shown (bin/ingest-quarantine cohorts lists every one).') : null;
  return el('section', { id: 'cohorts-section' },
    el('h2', {}, 'Open cohorts ', el('span', { class: 'count' }, num(report.total_cohorts))),
    el('p', { class: 'hint' }, 'Open records by parser version, error class and fingerprint, most documents first. Running parser: ',
      el('span', { class: 'mono' }, report.running_parser_version), '.'),
    table('cohorts', ['fingerprint', 'class', { label: 'documents', n: 1 }, { label: 'attempts', n: 1 }, 'since',
      'parser version', 'owners', 'example error'], rows, source ? 'No open quarantine records of this source.' : 'No open quarantine records.'),
    more);
}

function unindexableSection(cohorts) {
  const rows = cohorts.map(u => el('tr', { dataset: { fingerprint: u.error_fingerprint || '', source: u.source } },
    el('th', { scope: 'row', class: 'source' }, u.source),
    el('td', { class: 'fingerprint mono' }, u.error_fingerprint || '(none)'),
    el('td', { class: 'class' }, el('span', { class: 'tag ' + u.error_class }, u.error_class)),
    el('td', {}, u.parser_version || '–'),
    el('td', { class: 'reason' }, u.reason_code || '–'),
    el('td', { class: 'owner' }, u.owner || '–'),
    el('td', { class: 'n documents' }, num(u.documents)),
    timeCell(u.disposed_at)));
  return el('section', { id: 'unindexable-section' },
    el('h2', {}, 'Unindexable register'),
    el('p', { class: 'hint' }, 'Records an owner declared unindexable (dispose --unindexable). They still count as missing in coverage.'),
    table('unindexable', ['source', 'fingerprint', 'class', 'parser version', 'reason', 'owner', { label: 'documents', n: 1 }, 'moved'],
      rows, 'Nothing has been declared unindexable.'));
}

function drainsSection(runs) {
  const rows = runs.map(r => el('tr', { dataset: { runId: r.run_id } },
    timeCell(r.started_at),
    el('td', {}, r.started_by),
    el('td', { class: 'fingerprint mono' }, r.error_fingerprint),
    el('td', {}, r.parser_version || 'any'),
    el('td', { class: 'n' }, num(r.selected), el('span', { class: 'ago' }, 'of ' + num(r.cohort_documents))),
    el('td', { class: 'n' }, num(r.source_requests)),
    el('td', { class: 'status ' + r.status }, r.status === 'nothing_attempted'
      ? el('span', { title: 'every selected record was not_attempted: nothing was asked of a source, so this is no drain' }, 'nothing attempted (no drain)')
      : r.status),
    el('td', { class: 'outcomes' }, Object.entries(r.outcome_counts || {}).map(([k, v]) => el('span', { class: 'outcome' }, k + ' ' + num(v))))));
  return el('section', { id: 'drains-section' },
    el('h2', {}, 'Last drain runs'),
    table('drains', ['started', 'by', 'fingerprint', 'parser version', { label: 'selected', n: 1 },
      { label: 'source requests', n: 1 }, 'status', 'outcomes'], rows, 'No drain has run yet.'));
}

async function overview(view, params) {
  const source = new URLSearchParams(params).get('source');
  const cohortQuery = new URLSearchParams({ limit: COHORT_LIMIT });
  if (source) cohortQuery.set('source', source);
  const [coverage, cohorts, unindexable, drains] = await Promise.all([
    api('/api/coverage'), api('/api/cohorts?' + cohortQuery.toString()), api('/api/unindexable'), api('/api/drains')]);
  view.replaceChildren(sourceFilter(coverage.sources, source, overviewHref),
    coverageSection(ofSource(coverage.sources, source), coverage.formula, coverage.owners), cohortsSection(cohorts, source),
    unindexableSection(ofSource(unindexable.cohorts, source)), drainsSection(drains.runs));
}

// --- a cohort's records ----------------------------------------------------------------------------------

async function cohortView(view, params) {
  const q = new URLSearchParams(params);
  const source = q.get('source');
  q.set('limit', RECORD_LIMIT);
  const [answer, coverage] = await Promise.all([api('/api/records?' + q.toString()), api('/api/coverage')]);
  const rows = answer.records.map(r => el('tr', { dataset: { dlqId: r.dlq_id } },
    el('td', {}, el('a', { href: recordHref(r.dlq_id), class: 'mono' }, r.dlq_id)),
    el('td', { class: 'source' }, r.source),
    el('td', { class: 'doc mono' }, r.doc_id),
    el('td', { class: 'mono' }, r.error_type || '–'),
    el('td', {}, r.stage || '–'),
    el('td', { class: 'n' }, num(r.attempts)),
    el('td', { class: 'owner' }, r.owner || '–'),
    timeCell(r.first_seen_at),
    timeCell(r.last_seen_at)));
  view.replaceChildren(sourceFilter(coverage.sources, source, s => cohortHref(answer, s)), el('section', { id: 'cohort-section' },
    el('p', { class: 'crumbs' }, el('a', { href: overviewHref(source) }, 'quarantine'), ' › cohort'),
    el('h2', {}, 'Cohort ', el('span', { class: 'mono' }, answer.error_fingerprint)),
    el('dl', { class: 'facts' },
      el('dt', {}, 'class'), el('dd', {}, answer.error_class || 'any'),
      el('dt', {}, 'parser version'), el('dd', {}, answer.parser_version || 'any'),
      el('dt', {}, 'source'), el('dd', { id: 'cohort-source' }, answer.source || 'any',
        answer.source ? ' (owner ' + ownerOf(coverage.owners, answer.source) + ')' : null),
      el('dt', {}, 'open records'), el('dd', { id: 'cohort-total' }, num(answer.total))),
    table('records', ['dlq_id', 'source', 'doc_id', 'error type', 'stage', { label: 'attempts', n: 1 }, 'owner', 'first seen', 'last seen'],
      rows, 'No open record in this cohort (drained or disposed since).'),
    answer.cut > 0 ? el('p', { class: 'hint' }, answer.cut + ' more records not shown (oldest first).') : null,
    el('p', { class: 'hint' }, 'Next: bin/ingest-quarantine reproduce <dlq_id>, then (canary first) ',
      el('span', { class: 'mono', id: 'drain-command' }, answer.drain_command), ': it selects exactly this cohort.'),
    cohortActions(answer, params)));
}

// --- a record's evidence ---------------------------------------------------------------------------------

const EVIDENCE_FIELDS = ['dlq_id', 'source', 'doc_id', 'source_uri', 'disposition', 'reason_code', 'owner', 'closed_at',
  'error_class', 'error_type', 'error_message', 'error_fingerprint', 'stage', 'attempts', 'first_seen_at',
  'last_seen_at', 'source_version', 'source_updated_at', 'cursor_at_arrival', 'ingest_seq', 'content_type',
  'connector_version', 'parser_version', 'chunker_version', 'embedder_version', 'payload_uri', 'payload_sha256',
  'payload_bytes', 'stack_trace_uri'];

async function recordView(view, dlqId) {
  const [detail, trace] = await Promise.all([api('/api/records/' + encodeURIComponent(dlqId)),
    api('/api/records/' + encodeURIComponent(dlqId) + '/stack-trace')]);
  const r = detail.record;
  const back = r.error_fingerprint ? cohortHref(r) : '#';
  const facts = EVIDENCE_FIELDS.map(f => el('tr', { dataset: { field: f } },
    el('th', { scope: 'row' }, f),
    el('td', { class: f === 'error_message' ? 'message' : 'mono' },
      r[f] === null || r[f] === undefined ? '–' : String(r[f]),
      f === 'payload_uri' ? el('span', { class: 'ago' }, detail.payload_stored ? 'stored' : detail.payload_note ? 'not readable here: ' + detail.payload_note : 'not stored (expired, erased or never fetched)') : null,
      f === 'stack_trace_uri' ? el('span', { class: 'ago' }, detail.stack_trace_stored ? 'stored' : detail.stack_trace_note ? 'not readable here: ' + detail.stack_trace_note : 'not stored') : null)));
  const attempts = detail.attempts.map(a => el('tr', {},
    el('td', { class: 'n' }, a.attempt_no), timeCell(a.seen_at),
    el('td', {}, el('span', { class: 'tag ' + a.error_class }, a.error_class)),
    el('td', { class: 'mono' }, a.error_type || '–'), el('td', { class: 'mono' }, a.error_fingerprint || '–'),
    el('td', {}, a.reason_code || '–'), el('td', {}, a.stage || '–'), el('td', {}, a.parser_version || '–'),
    el('td', { class: 'mono' }, a.source_version || '–'), el('td', { class: 'n' }, a.delivery_count)));
  view.replaceChildren(el('section', { id: 'record-section' },
    el('p', { class: 'crumbs' }, el('a', { href: '#' }, 'quarantine'), ' › ', el('a', { href: back }, 'cohort'), ' › record'),
    el('h2', {}, 'Evidence ', el('span', { class: 'mono' }, r.source + '/' + r.doc_id)),
    el('table', { id: 'evidence', class: 'evidence' }, el('tbody', {}, facts)),
    el('h3', {}, 'Attempts'),
    table('attempts', [{ label: '#', n: 1 }, 'seen', 'class', 'error type', 'fingerprint', 'reason', 'stage',
      'parser version', 'source version', { label: 'delivery', n: 1 }], attempts, 'No attempt recorded.'),
    replaySection(r),
    stackTraceSection(trace),
    el('p', { class: 'hint' }, 'Next: bin/ingest-quarantine reproduce ', el('span', { class: 'mono' }, r.dlq_id),
      ' parses the stored payload again with the parser running now.')));
}

// --- source filter, owners, replays and the stack trace ----------------------------------------------------

// the overview of one source (every source without one)
function overviewHref(source) { return source ? '#overview?source=' + encodeURIComponent(source) : '#'; }

function ofSource(rows, source) { return source ? rows.filter(r => r.source === source) : rows; }

function ownerOf(owners, source) { return (owners || {})[source] || '–'; }

function ownersText(owners) { return owners && owners.length ? owners.join(', ') : '–'; }

// a choice of source kept in the URL fragment: hrefOf(source or null) is the view of that source
function sourceFilter(coverageRows, selected, hrefOf) {
  const names = coverageRows.map(s => s.source).filter(n => n !== '_other');
  if (selected && !names.includes(selected)) names.push(selected);
  const select = el('select', { id: 'source-filter', 'aria-label': 'source' },
    el('option', { value: '' }, 'every source'),
    names.sort().map(n => el('option', { value: n, selected: n === selected }, n)));
  select.addEventListener('change', () => { location.hash = hrefOf(select.value || null); });
  return el('p', { class: 'filter' }, el('label', { for: 'source-filter' }, 'Source '), select,
    selected ? el('span', { class: 'hint' }, ' Coverage, cohorts and the register show ', selected, ' only; drain runs every source.') : null);
}

function replaySection(r) {
  return el('section', { id: 'replays-section' },
    el('h3', {}, 'Replays'),
    el('table', { id: 'replays', class: 'evidence' }, el('tbody', {},
      el('tr', { dataset: { field: 'replay_count' } }, el('th', { scope: 'row' }, 'replay_count'), el('td', {}, num(r.replay_count))),
      el('tr', { dataset: { field: 'last_replayed_at' } }, el('th', { scope: 'row' }, 'last_replayed_at'), timeCell(r.last_replayed_at)),
      el('tr', { dataset: { field: 'last_drain_run_id' } }, el('th', { scope: 'row' }, 'last_drain_run_id'),
        el('td', { class: 'mono' }, r.last_drain_run_id || '–')))),
    el('p', { class: 'hint' }, 'How many times a drain asked the source for this document again, whatever the verdict.'));
}

// types and frames only: the API leaves every exception message out (a message may quote the document)
function stackTraceSection(trace) {
  return el('section', { id: 'stack-trace-section' },
    el('h3', {}, 'Stack trace'),
    trace.stored
      ? el('pre', { id: 'stack-trace', class: 'trace' }, trace.stack_trace)
      : el('p', { class: 'empty', id: 'stack-trace' }, 'No stack trace: ' + trace.why + '.'),
    el('p', { class: 'hint' }, 'Exception types and frames; messages are left out (error_message above is the root cause\'s).'));
}

// --- actions: dispose and canary drain from a cohort, the actions trail ------------------------------------
// An action is two steps. The preview (its dry run: the exact selection, its count per source, what it would do)
// gives a confirmation bound to the selection and its count; the dialog shows them and the operator confirms; the
// action brings the confirmation back, and the API refuses it (409, nothing changed) if the selection changed since.
// The result and the action's trail entry are shown. The actor (who acts) is asked for and kept in this tab.

const ACTOR_KEY = 'ingest-quarantine.operator-actor';
const ACTIONS_LIMIT = 50;
const CANARY_DEFAULT = 5;

// the selection the cohort view shows, as the API's actions take it
function selectionOf(answer, params) {
  const s = { fingerprint: answer.error_fingerprint };
  if (answer.parser_version) s.parser_version = answer.parser_version;
  if (answer.error_class) s.class = answer.error_class;
  const source = new URLSearchParams(params).get('source');
  if (source) s.source = source;
  return s;
}

function cohortActions(answer, params) {
  const selection = selectionOf(answer, params);
  const none = answer.total === 0 ? true : null;
  const dispose = el('button', { type: 'button', id: 'dispose-open', disabled: none }, 'Dispose…');
  const drain = el('button', { type: 'button', id: 'drain-open', disabled: none }, 'Canary drain…');
  dispose.addEventListener('click', () => actionDialog(disposeSteps(selection)));
  drain.addEventListener('click', () => actionDialog(drainSteps(selection)));
  return el('p', { class: 'cohort-actions', id: 'cohort-actions' }, dispose, ' ', drain,
    el('span', { class: 'hint' }, ' Each shows what it would do and asks you to confirm; ', el('a', { href: '#actions' }, 'the actions trail'), ' records it.'));
}

function field(label, attrs) {
  return el('label', { class: 'field' }, el('span', {}, label), el('input', attrs));
}

function disposeSteps(selection) {
  return {
    title: 'Dispose of the cohort as unindexable',
    fields: [
      field('reason', { id: 'action-reason', required: true, maxlength: 200, placeholder: 'e.g. vendor_format' }),
      field('owner', { id: 'action-owner', required: true, maxlength: 200, placeholder: 'the team that owns the decision' }),
      field('source', { id: 'action-source', maxlength: 200, value: selection.source || '', placeholder: 'required when the cohort spans sources' })],
    previewPath: '/api/dispose/preview',
    actPath: '/api/dispose',
    selection: form => Object.assign({}, selection, form.source ? { source: form.source } : {}),
    extra: form => ({ reason: form.reason, owner: form.owner }),
    describe: (p, form) => [
      el('p', { id: 'action-count' }, num(p.records) + ' open records move to unindexable (reason ' + form.reason
        + ', owner ' + form.owner + '). They stay missing in coverage: coverage does not change.'),
      table('action-by-source', ['source', { label: 'records', n: 1 }],
        Object.entries(p.records_by_source).map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', { class: 'n' }, num(v)))), '')],
    confirmLabel: p => 'Dispose of ' + num(p.records) + ' records',
    result: r => [el('p', { id: 'action-outcome' }, num(r.unindexable) + ' records moved to unindexable.'), entryTable(r.action)],
  };
}

function drainSteps(selection) {
  return {
    title: 'Canary drain: replay the oldest records from their source',
    fields: [field('limit (records)', { id: 'action-limit', type: 'number', min: 1, required: true, value: CANARY_DEFAULT })],
    previewPath: '/api/drain/preview',
    actPath: '/api/drain',
    selection: form => Object.assign({}, selection, { limit: Number(form.limit) }),
    extra: () => ({}),
    describe: p => [
      el('p', { id: 'action-count' }, 'Selects the oldest ' + num(p.plan.dlq_ids.length) + ' of ' + num(p.plan.cohort_documents)
        + ' open records (at most ' + num(p.max_limit) + ' from the page) and asks their source again: about '
        + num(p.plan.source_requests) + ' source requests, ' + age(p.plan.duration_seconds) + ' at ' + p.rate_per_s
        + '/s (the whole cohort: ' + age(p.plan.cohort_duration_seconds) + '). The page waits for its counts.'),
      table('action-by-source', ['source', { label: 'selected', n: 1 }],
        Object.entries(p.plan.selected_by_source).map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', { class: 'n' }, num(v)))), ''),
      el('p', { class: 'hint mono ids' }, p.plan.dlq_ids.join(' '))],
    confirmLabel: p => 'Drain ' + num(p.plan.dlq_ids.length) + ' records',
    result: r => [
      el('p', { id: 'action-outcome' }, 'Drain run ' + r.report.run_id + ': ' + num(r.report.selected) + ' of '
        + num(r.report.cohort_documents) + ' selected, ' + num(r.report.source_requests) + ' source requests.'),
      el('p', { class: 'outcomes' }, outcomeChips(r.report.outcomes)),
      entryTable(r.action)],
  };
}

function selectionFacts(s) {
  return el('dl', { class: 'facts', id: 'action-selection' },
    el('dt', {}, 'fingerprint'), el('dd', { class: 'mono' }, s.fingerprint),
    el('dt', {}, 'parser version'), el('dd', {}, s.parser_version || 'any'),
    el('dt', {}, 'class'), el('dd', {}, s.error_class || 'any'),
    el('dt', {}, 'source'), el('dd', {}, s.source || 'any'),
    s.limit ? [el('dt', {}, 'limit'), el('dd', {}, num(s.limit))] : null);
}

// the two steps in one modal dialog: the form, then the preview with Confirm, then the result
function actionDialog(steps) {
  const body = el('div', { class: 'dialog-body' });
  const error = el('p', { class: 'error', role: 'alert', id: 'action-error' });
  const dialog = el('dialog', { id: 'action-dialog', 'aria-labelledby': 'action-title' },
    el('h2', { id: 'action-title' }, steps.title), body, error);
  const close = () => { dialog.close(); };
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (dialog.dataset.acted) { delete document.body.dataset.loaded; render(); } // the view, as the action left it
  });
  const button = (id, label, onClick, quiet) => {
    const b = el('button', { type: 'button', id: id, class: quiet ? 'quiet' : null }, label);
    b.addEventListener('click', onClick);
    return b;
  };
  const busy = async (what, work) => {
    error.textContent = '';
    dialog.setAttribute('aria-busy', 'true');
    for (const b of dialog.querySelectorAll('button')) b.disabled = true;
    body.append(el('p', { class: 'hint', id: 'action-busy' }, what));
    try { await work(); } catch (e) {
      if (e instanceof Refused) { close(); showLogin(e.message); return; }
      error.textContent = e.message;
    } finally {
      dialog.removeAttribute('aria-busy');
      const note = dialog.querySelector('#action-busy');
      if (note) note.remove();
      for (const b of dialog.querySelectorAll('button')) b.disabled = false;
    }
  };
  const actor = field('actor (you)', { id: 'action-actor', required: true, maxlength: 200, value: sessionStorage.getItem(ACTOR_KEY) || '' });
  const form = el('form', { id: 'action-form', autocomplete: 'off' }, steps.fields, actor,
    el('p', { class: 'buttons' }, el('button', { type: 'submit', id: 'action-preview' }, 'Preview'), button('action-cancel', 'Cancel', close, true)));
  form.addEventListener('submit', event => {
    event.preventDefault();
    const values = {};
    for (const input of form.querySelectorAll('input')) values[input.id.replace(/^action-/, '')] = input.value.trim();
    sessionStorage.setItem(ACTOR_KEY, values.actor);
    const selection = steps.selection(values);
    busy('Asking for the preview…', async () => {
      const preview = await api(steps.previewPath, selection);
      showPreview(preview, values, selection);
    });
  });
  const showPreview = (preview, values, selection) => {
    body.replaceChildren(el('section', { id: 'action-preview-area' },
      el('h3', {}, 'Exactly this selection'), selectionFacts(preview.selection), steps.describe(preview, values),
      el('p', { class: 'hint' }, 'Acting as ' + values.actor + '. The action is refused, changing nothing, if the selection changed since this preview.'),
      el('p', { class: 'buttons' },
        button('action-confirm', steps.confirmLabel(preview), () => busy('Acting…', async () => {
          const result = await api(steps.actPath, Object.assign({}, selection, steps.extra(values),
            { actor: values.actor, channel: 'page', confirmation: preview.confirmation }));
          dialog.dataset.acted = 'true';
          showResult(result);
        })),
        button('action-back', 'Back', () => { body.replaceChildren(form); }, true))));
  };
  const showResult = result => {
    body.replaceChildren(el('section', { id: 'action-result' }, steps.result(result),
      el('p', { class: 'buttons' }, button('action-close', 'Close', close),
        el('a', { href: '#actions', id: 'action-trail-link' }, 'All actions'))));
    // the link's own navigation draws the trail; the cohort is not drawn again over it
    dialog.querySelector('#action-trail-link').addEventListener('click', () => { delete dialog.dataset.acted; close(); });
  };
  body.append(form);
  document.body.append(dialog);
  dialog.showModal();
  (form.querySelector('input:not([value])') || actor.querySelector('input')).focus();
}

function outcomeChips(counts) {
  return Object.entries(counts || {}).map(([k, v]) => el('span', { class: 'outcome' }, k + ' ' + num(v)));
}

function selectionCell(s) {
  return el('td', { class: 'selection' }, el('span', { class: 'mono' }, s.fingerprint),
    el('span', { class: 'ago' }, ['parser ' + (s.parser_version || 'any'), 'class ' + (s.error_class || 'any'),
      'source ' + (s.source || 'any')].concat(s.limit ? ['limit ' + s.limit] : []).join(' · ')));
}

function actionRow(a) {
  return el('tr', { dataset: { actionId: a.action_id, action: a.action, status: a.status } },
    timeCell(a.started_at),
    el('td', { class: 'actor' }, a.actor),
    el('td', { class: 'channel' }, a.channel),
    el('td', { class: 'action' }, a.action, a.reason_code ? el('span', { class: 'ago' }, a.reason_code + ', owner ' + a.owner) : null),
    selectionCell(a.selection),
    el('td', { class: 'n selected' }, num(a.selected)),
    el('td', { class: 'status ' + a.status }, a.status),
    el('td', { class: 'outcomes' }, a.error ? el('span', { class: 'error' }, a.error) : outcomeChips(a.outcome_counts),
      a.drain_run_id ? el('span', { class: 'ago' }, 'run ' + a.drain_run_id) : null));
}

const ACTION_HEADINGS = ['started', 'actor', 'channel', 'action', 'selection', { label: 'selected', n: 1 }, 'status', 'outcome'];

function entryTable(a) {
  return el('div', {}, el('h3', {}, 'Trail entry'), table('action-entry', ACTION_HEADINGS, [actionRow(a)], ''));
}

async function actionsView(view) {
  const answer = await api('/api/actions?limit=' + ACTIONS_LIMIT);
  view.replaceChildren(el('section', { id: 'actions-section' },
    el('p', { class: 'crumbs' }, el('a', { href: '#' }, 'quarantine'), ' › actions'),
    el('h2', {}, 'Actions'),
    el('p', { class: 'hint' }, 'Every dispose and drain, from the commands, the API and this page, newest first: who said they acted, the channel, the exact selection, the records it took and how it ended (bin/ingest-quarantine actions lists them too).'),
    table('actions', ACTION_HEADINGS, answer.actions.map(actionRow), 'No action has been recorded yet.')));
}

// --- session and routing ---------------------------------------------------------------------------------

function showLogin(message) {
  $('session').hidden = true;
  $('view').replaceChildren();
  $('error').hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = message || '';
  $('token').focus();
}

async function render() {
  if (!token()) { showLogin(); return; }
  $('login').hidden = true;
  $('session').hidden = false;
  $('error').hidden = true;
  const view = $('view');
  view.setAttribute('aria-busy', 'true');
  const hash = location.hash.replace(/^#/, '');
  try {
    if (hash.startsWith('cohort?')) await cohortView(view, hash.substring('cohort?'.length));
    else if (hash.startsWith('record/')) await recordView(view, decodeURIComponent(hash.substring('record/'.length)));
    else if (hash === 'actions') await actionsView(view);
    else await overview(view, hash.startsWith('overview?') ? hash.substring('overview?'.length) : '');
    for (const fill of view.querySelectorAll('.fill')) fill.style.width = (Number(fill.dataset.ratio) * 100) + '%';
    $('read-at').textContent = 'read ' + new Date().toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
    document.body.dataset.loaded = hash.split(/[?/]/)[0] || 'overview';
  } catch (e) {
    if (e instanceof Refused) { showLogin(e.message); return; }
    $('error').textContent = e.message;
    $('error').hidden = false;
  } finally {
    view.removeAttribute('aria-busy');
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('login-form').addEventListener('submit', event => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
    $('token').value = '';
    render();
  });
  $('forget').addEventListener('click', () => { sessionStorage.removeItem(TOKEN_KEY); showLogin('Token forgotten.'); });
  $('refresh').addEventListener('click', () => { delete document.body.dataset.loaded; render(); });
  window.addEventListener('hashchange', () => { delete document.body.dataset.loaded; render(); });
  render();
});
