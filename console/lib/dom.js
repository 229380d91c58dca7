// Small DOM helpers: elements built with text nodes only (never innerHTML with data), so nothing
// the API returns can become markup.

/** h('button', { class: 'x', onclick }, 'text', child) */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, '');
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

let uid = 0;
/** A unique element id (labels need one). */
export const nextId = (prefix) => `${prefix}-${++uid}`;

/** A labelled control: returns [label, control]. */
export function field(labelText, control) {
  if (!control.id) control.id = nextId('f');
  return [h('label', { for: control.id }, labelText), control];
}

/** A radio group in a fieldset; `onchange(value)`. Returns { el, value() }. */
export function radios(legend, name, options, initial, onchange) {
  const group = h('div', { class: 'choices' });
  for (const [value, text] of options) {
    const input = h('input', { type: 'radio', name, value, checked: value === initial, onchange: () => onchange?.(value) });
    group.append(h('label', {}, input, text));
  }
  const el = h('fieldset', {}, h('legend', {}, legend), group);
  return { el, value: () => el.querySelector('input:checked')?.value ?? initial };
}

/** The page's polite notice line (errors in red). */
export function notify(text, bad = false) {
  const n = document.getElementById('notice');
  n.textContent = text;
  n.classList.toggle('bad', bad);
  n.setAttribute('role', bad ? 'alert' : 'status');
}

export function badge(status) {
  return h('span', { class: `badge ${status}` }, status);
}

export function fmtCredits(n) {
  return Number(n).toLocaleString('en-US', { maximumFractionDigits: 3 });
}

export function fmtTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString();
}

/** A confirmation dialog (native <dialog>: focus is trapped and Escape cancels). Resolves true when confirmed. */
export function confirmDialog(message, confirmText = 'Delete') {
  return new Promise((resolve) => {
    const yes = h('button', { type: 'button', class: 'danger' }, confirmText);
    const no = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const title = h('h2', { id: nextId('dlg') }, 'Please confirm');
    const dlg = h('dialog', { 'aria-labelledby': title.id }, title, h('p', {}, message), yes, no);
    const done = (v) => {
      dlg.close();
      dlg.remove();
      resolve(v);
    };
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    dlg.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.append(dlg);
    dlg.showModal();
    no.focus();
  });
}

/**
 * A file drop zone: a label wrapping a real file input (so it works from the keyboard and with
 * screen readers) that also takes drag-and-drop. `onfile(file)`.
 */
export function dropZone(text, accept, onfile) {
  const input = h('input', { type: 'file', accept });
  const name = h('span', { class: 'muted', 'aria-live': 'polite' });
  const zone = h('label', { class: 'drop' }, text, h('br'), h('span', { class: 'muted' }, 'Drop a file here or choose one'), input, name);
  const take = (file) => {
    if (!file) return;
    name.textContent = `${file.name} (${Math.round(file.size / 1024)} KB)`;
    onfile(file);
  };
  input.addEventListener('change', () => take(input.files?.[0]));
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    take(e.dataTransfer?.files?.[0]);
  });
  return { el: zone, input, clear: () => ((input.value = ''), (name.textContent = '')) };
}
