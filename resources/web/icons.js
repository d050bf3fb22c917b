// Class icons beside agents. An icon is only ever an <img>, never SVG markup in the page: an SVG
// shown as an image runs no script and reaches nothing of the page, whatever it holds (the
// service also sends it with `Content-Security-Policy: sandbox` and nosniff).
//
// An <img> cannot send the token header. When the service answers the icon route to the <img>
// itself (an open service, or an icon route without auth) the image asks for it; otherwise the
// bytes are fetched with the token and shown through a blob: URL (which needs img-src blob: in
// the page's CSP). One probe image finds out which, once per page load.

import {storedToken} from './api.js';
import {h} from './dom.js';
import {state} from './store.js';

const loaded = new Map(); // slug -> {version, url: Promise<string | null>}
let direct = null; // Promise<boolean>: whether an <img> gets the icon route's answer by itself

function iconPath(slug) {
  return `/api/classes/${encodeURIComponent(slug)}/icon`;
}

function fetchBlobUrl(path) {
  return fetch(path, {headers: {'X-Auth-Token': storedToken()}, cache: 'no-store', credentials: 'omit', redirect: 'error'})
    .then((r) => (r.ok ? r.blob() : null))
    .then((b) => (b && /^image\/(png|svg\+xml)$/.test(b.type) ? URL.createObjectURL(b) : null), () => null);
}

function iconUrl(cls) {
  const version = `${cls.updatedAt || ''}`;
  const known = loaded.get(cls.slug);
  if (known && known.version === version) return known.url;
  if (known) known.url.then((u) => { if (u && u.startsWith('blob:')) URL.revokeObjectURL(u); });
  const path = iconPath(cls.slug);
  if (!direct) {
    direct = !storedToken() ? Promise.resolve(true) : new Promise((resolve) => {
      const probe = new Image();
      probe.onload = () => resolve(true);
      probe.onerror = () => resolve(false);
      probe.src = path;
    });
  }
  const url = direct.then((ok) => (ok ? path : fetchBlobUrl(path)));
  loaded.set(cls.slug, {version, url});
  return url;
}

// The icon of class `slug` as an <img>, or null when the class has none (or is only a label).
export function classIcon(slug, size = 20) {
  const cls = slug && state.classes.get(slug);
  if (!cls || !cls.hasIcon) return null;
  const img = h('img', {class: 'class-icon', alt: `${cls.name || cls.slug} icon`, title: cls.name || cls.slug,
    width: size, height: size, decoding: 'async', dataset: {class: cls.slug}});
  iconUrl(cls).then((u) => {
    if (u) img.src = u;
    else img.hidden = true;
  });
  return img;
}
