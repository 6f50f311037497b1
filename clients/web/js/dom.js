// A tiny element builder: h('button', {class: 'x', onclick}, 'text', child).

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = v;
    else if (k === 'value') node.value = v;
    else if (k === 'checked') node.checked = Boolean(v);
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function showAlert(text) {
  const box = document.getElementById('alert');
  box.textContent = text || '';
  box.hidden = !text;
}

export function announce(text) {
  document.getElementById('announce').textContent = text;
}

export function params() {
  return Object.fromEntries(new URLSearchParams(location.hash.replace(/^#/, '')));
}
