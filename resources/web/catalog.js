// What shapes agents and runs beside them (docs/api.md "Shaping agents"): classes, skills, saved
// prompts, hooks and buildings. Loaded over REST on every connection, kept current from their
// WebSocket events; views subscribe to the kind's topic ('classes', 'skills'...).

import {api} from './api.js';
import {addHandlers, emit, state} from './store.js';

export const KINDS = {
  classes: {path: '/api/classes', key: 'slug'},
  skills: {path: '/api/skills', key: 'slug'},
  prompts: {path: '/api/prompts', key: 'id'},
  hooks: {path: '/api/hooks', key: 'id'},
  buildings: {path: '/api/buildings', key: 'id'},
};
for (const kind of Object.keys(KINDS)) state[kind] = new Map();
state.missing = new Set(); // kinds this service has no routes for (an older flotillad)

// A list answer: a bare array, or an object holding it under `key`.
export function listOf(r, key) {
  if (Array.isArray(r)) return r;
  return r && Array.isArray(r[key]) ? r[key] : [];
}

export function itemPath(kind, item) {
  return `${KINDS[kind].path}/${encodeURIComponent(typeof item === 'object' ? item[KINDS[kind].key] : item)}`;
}

export async function loadKind(kind) {
  const {path, key} = KINDS[kind];
  try {
    const list = listOf(await api('GET', path), kind);
    state[kind] = new Map(list.map((x) => [x[key], x]));
    state.missing.delete(kind);
  } catch (e) {
    if (e.status !== 404) throw e;
    state[kind] = new Map();
    state.missing.add(kind);
  }
  emit(kind);
}

export function loadCatalog() {
  return Promise.allSettled(Object.keys(KINDS).map(loadKind));
}

// An item the page itself just created or changed (its event follows and says the same).
export function putItem(kind, item) {
  if (!item || typeof item !== 'object' || item[KINDS[kind].key] === undefined) return;
  state[kind].set(item[KINDS[kind].key], item);
  emit(kind);
}

export function sorted(kind) {
  return [...state[kind].values()].sort((a, b) =>
    String(a.name || a.slug || '').localeCompare(String(b.name || b.slug || '')));
}

// A hook run failed: the service says so (`failed`), else its outcome does.
export function runFailed(run) {
  if (!run) return false;
  if (typeof run.failed === 'boolean') return run.failed;
  return !!(run.timedOut || run.error || run.signal || (run.exitCode !== 0 && run.exitCode !== undefined));
}

const put = (kind) => (item) => putItem(kind, item);
const drop = (kind) => (p) => {
  if (state[kind].delete(p[KINDS[kind].key])) emit(kind);
};

addHandlers({
  class_created: put('classes'),
  class_updated: put('classes'),
  class_deleted: drop('classes'),
  skill_created: put('skills'),
  skill_updated: put('skills'),
  skill_deleted: drop('skills'),
  prompt_created: put('prompts'),
  prompt_updated: put('prompts'),
  prompt_deleted: drop('prompts'),
  hook_created: put('hooks'),
  hook_updated: put('hooks'),
  hook_deleted: drop('hooks'),
  hook_run: (run) => {
    const hook = state.hooks.get(run.hookId);
    if (hook) {
      hook.lastRun = run;
      emit('hooks');
    }
    emit('hook-run:' + run.hookId, run);
  },
  building_created: put('buildings'),
  building_updated: put('buildings'),
  building_deleted: drop('buildings'),
  building_output: (p) => emit('building-output:' + p.buildingId, p),
});
