// A box that scrolls (a card, or a table's wrapper, wider than a phone's screen) is reachable by
// keyboard, as axe-core's scrollable-region-focusable asks: focusable while it scrolls, named by
// its heading. Boxes that fit stay out of the tab order.

const BOXES = '.card, .table-wrap';

/** Makes `box` a named, focusable region while it scrolls, and takes that back once it fits. */
function mark(box) {
  const scrolls = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
  if (scrolls && !('scrollBox' in box.dataset)) {
    box.dataset.scrollBox = '';
    box.tabIndex = 0;
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', box.querySelector('h2, caption')?.textContent || 'scrolling box');
  } else if (!scrolls && 'scrollBox' in box.dataset) {
    delete box.dataset.scrollBox;
    for (const name of ['tabindex', 'role', 'aria-label']) box.removeAttribute(name);
  }
}

const sizes = new ResizeObserver((entries) => entries.forEach((entry) => mark(/** @type {HTMLElement} */ (entry.target))));

/** Watches the boxes under `root`, and those added from now on. */
export function watchScrollBoxes(root) {
  for (const box of root.querySelectorAll(BOXES)) sizes.observe(box);
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof HTMLElement)) continue;
        if (node.matches(BOXES)) sizes.observe(node);
        for (const box of node.querySelectorAll(BOXES)) sizes.observe(box);
      }
    }
  }).observe(root, { childList: true, subtree: true });
}
