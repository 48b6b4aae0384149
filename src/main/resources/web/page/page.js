// The operator page: reads /api/ with the bearer token the operator typed (kept in sessionStorage) and draws
// the quarantine. Views by URL fragment: '' (overview), '#cohort?fingerprint=F&parser_version=V&class=C'
// (a cohort's open records), '#record/<dlq_id>' (a record's evidence). Every value is put in the page as text
// (textContent), never as HTML. No framework, nothing fetched from another origin.
'use strict';

const TOKEN_KEY = 'ingest-quarantine.operator-token';
const COHORT_LIMIT = 50;
const RECORD_LIMIT = 100;

class Refused extends Error {}

function $(id) { return document.getElementById(id); }

function token() { return sessionStorage.getItem(TOKEN_KEY); }

async function api(path) {
  const response = await fetch(path, { headers: { Authorization: 'Bearer ' + token() }, cache: 'no-store' });
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

function cohortHref(c) {
  const q = new URLSearchParams();
  q.set('fingerprint', c.error_fingerprint);
  if (c.parser_version) q.set('parser_version', c.parser_version);
  if (c.error_class) q.set('class', c.error_class);
  return '#cohort?' + q.toString();
}

function recordHref(dlqId) { return '#record/' + encodeURIComponent(dlqId); }

// --- overview --------------------------------------------------------------------------------------------

// the percentage is the API's coverage_percent, formatted once on the server as the coverage command prints it
function coverageSection(sources, formula) {
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
    table('coverage', ['source', 'coverage', { label: 'total', n: 1 }, 'total from', { label: 'indexed', n: 1 },
      { label: 'open', n: 1 }, { label: 'unindexable', n: 1 }, { label: 'erased', n: 1 }, { label: 'skipped', n: 1 },
      { label: 'documents', n: 1 }, { label: 'oldest open', n: 1 }], rows,
    'No source has reported documents or failures yet.'));
}

function cohortsSection(report) {
  const rows = report.cohorts.map(c => el('tr', { dataset: { fingerprint: c.error_fingerprint || '', parserVersion: c.parser_version || '' } },
    el('td', { class: 'fingerprint' }, el('a', { href: cohortHref(c), class: 'mono' }, c.error_fingerprint || '(none)'),
      c.older_fingerprint ? el('span', { class: 'stale', title: num(c.older_fingerprint_documents) + ' of its records fingerprinted by an older algorithm than ' + report.running_fingerprint_version + ': bin/ingest-quarantine fingerprints remap recomputes them' }, 'older fingerprint') : null),
    el('td', { class: 'class' }, el('span', { class: 'tag ' + c.error_class }, c.error_class)),
    el('td', { class: 'n documents' }, num(c.documents)),
    el('td', { class: 'n attempts' }, num(c.attempts)),
    timeCell(c.since),
    el('td', { class: 'parser' }, c.parser_version || '–',
      c.stale_parser ? el('span', { class: 'stale', title: 'not the parser running now (' + report.running_parser_version + '): a drain may repair these' }, 'older parser') : null),
    el('td', { class: 'example', title: c.example_message || '' },
      el('span', { class: 'mono' }, c.example_error_type || ''), c.example_message ? ': ' + c.example_message : '')));
  const more = report.cut > 0 ? el('p', { class: 'hint' }, report.cut + ' more cohorts not shown (bin/ingest-quarantine cohorts lists every one).') : null;
  return el('section', { id: 'cohorts-section' },
    el('h2', {}, 'Open cohorts ', el('span', { class: 'count' }, num(report.total_cohorts))),
    el('p', { class: 'hint' }, 'Open records by parser version, error class and fingerprint, most documents first. Running parser: ',
      el('span', { class: 'mono' }, report.running_parser_version), '.'),
    table('cohorts', ['fingerprint', 'class', { label: 'documents', n: 1 }, { label: 'attempts', n: 1 }, 'since',
      'parser version', 'example error'], rows, 'No open quarantine records.'),
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

async function overview(view) {
  const [coverage, cohorts, unindexable, drains] = await Promise.all([
    api('/api/coverage'), api('/api/cohorts?limit=' + COHORT_LIMIT), api('/api/unindexable'), api('/api/drains')]);
  view.replaceChildren(coverageSection(coverage.sources, coverage.formula), cohortsSection(cohorts),
    unindexableSection(unindexable.cohorts), drainsSection(drains.runs));
}

// --- a cohort's records ----------------------------------------------------------------------------------

async function cohortView(view, params) {
  const q = new URLSearchParams(params);
  q.set('limit', RECORD_LIMIT);
  const answer = await api('/api/records?' + q.toString());
  const rows = answer.records.map(r => el('tr', { dataset: { dlqId: r.dlq_id } },
    el('td', {}, el('a', { href: recordHref(r.dlq_id), class: 'mono' }, r.dlq_id)),
    el('td', { class: 'source' }, r.source),
    el('td', { class: 'doc mono' }, r.doc_id),
    el('td', { class: 'mono' }, r.error_type || '–'),
    el('td', {}, r.stage || '–'),
    el('td', { class: 'n' }, num(r.attempts)),
    timeCell(r.first_seen_at),
    timeCell(r.last_seen_at)));
  view.replaceChildren(el('section', { id: 'cohort-section' },
    el('p', { class: 'crumbs' }, el('a', { href: '#' }, 'quarantine'), ' › cohort'),
    el('h2', {}, 'Cohort ', el('span', { class: 'mono' }, answer.error_fingerprint)),
    el('dl', { class: 'facts' },
      el('dt', {}, 'class'), el('dd', {}, answer.error_class || 'any'),
      el('dt', {}, 'parser version'), el('dd', {}, answer.parser_version || 'any'),
      el('dt', {}, 'open records'), el('dd', { id: 'cohort-total' }, num(answer.total))),
    table('records', ['dlq_id', 'source', 'doc_id', 'error type', 'stage', { label: 'attempts', n: 1 }, 'first seen', 'last seen'],
      rows, 'No open record in this cohort (drained or disposed since).'),
    answer.cut > 0 ? el('p', { class: 'hint' }, answer.cut + ' more records not shown (oldest first).') : null,
    el('p', { class: 'hint' }, 'Next: bin/ingest-quarantine reproduce <dlq_id>, then (canary first) ',
      el('span', { class: 'mono', id: 'drain-command' }, answer.drain_command), ': it selects exactly this cohort.')));
}

// --- a record's evidence ---------------------------------------------------------------------------------

const EVIDENCE_FIELDS = ['dlq_id', 'source', 'doc_id', 'source_uri', 'disposition', 'reason_code', 'owner', 'closed_at',
  'error_class', 'error_type', 'error_message', 'error_fingerprint', 'stage', 'attempts', 'first_seen_at',
  'last_seen_at', 'source_version', 'source_updated_at', 'cursor_at_arrival', 'ingest_seq', 'content_type',
  'connector_version', 'parser_version', 'chunker_version', 'embedder_version', 'payload_uri', 'payload_sha256',
  'payload_bytes', 'stack_trace_uri'];

async function recordView(view, dlqId) {
  const detail = await api('/api/records/' + encodeURIComponent(dlqId));
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
    el('p', { class: 'hint' }, 'Next: bin/ingest-quarantine reproduce ', el('span', { class: 'mono' }, r.dlq_id),
      ' parses the stored payload again with the parser running now.')));
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
    else await overview(view);
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
