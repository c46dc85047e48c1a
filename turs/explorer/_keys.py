"""The explorer's keys: ← → step beam iterations, PageUp / PageDown rule searches, Home / End.

Two routes bring a key press to :meth:`SearchExplorer.handle_key
<turs.explorer.SearchExplorer.handle_key>`:

* :data:`SCRIPT`, a page-wide listener shown once with the explorer (``_ipython_display_``): a
  key pressed on the page, on load or after a click on the app, clicks the hidden button of
  that key (:func:`key_buttons`) in the explorer the user last clicked (with the focus on the
  page itself: the first one on screen). Keys typed into a text box, a number box or a list,
  already used by the control that has the focus (a slider's handle) or pressed after a click
  elsewhere (another cell of a notebook) are left alone; a click on the app outside a text box
  ends typing in it.
* :func:`key_events`: ipyevents over the pictures (the mouse over them), for a page where
  scripts in outputs do not run (an untrusted notebook).
"""
from __future__ import annotations

import ipywidgets as W

#: Keys of :meth:`SearchExplorer.handle_key` (ipyevents ``key`` names) and what they do.
KEYS = {"ArrowRight": "next beam iteration", "ArrowLeft": "previous beam iteration",
        "PageDown": "next rule search", "PageUp": "previous rule search",
        "Home": "first step", "End": "last step"}
#: The CSS class of the search explorer (the listener's target) and the prefix of its key buttons.
ROOT_CLASS = "turs-search-explorer"
BUTTON_CLASS = "turs-key-"

SCRIPT = """
(function () {
  if (window.tursExplorerKeys) { return; }
  window.tursExplorerKeys = true;
  const KEYS = %(keys)s;
  const ROOT = '.%(root)s';
  let last = null;  // the explorer of the last click (null: the last click was outside every explorer)
  const owner = (el) => {
    if (!el || !el.closest) { return null; }
    const root = el.closest(ROOT);
    if (root) { return root; }
    const app = el.closest('.turs-app');  // the Explorer's side panel: its search explorer
    return app ? app.querySelector(ROOT) : null;
  };
  const onScreen = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.bottom > 0 && r.top < window.innerHeight;
  };
  const typing = (el) => !!(el && el.closest && el.closest(
    'input, textarea, select, [contenteditable=""], [contenteditable="true"]'));
  document.addEventListener('pointerdown', (e) => {
    last = owner(e.target);
    // a click on the app outside a text box ends typing there (a tab, say, takes no focus)
    const active = document.activeElement;
    if (last && typing(active) && !typing(e.target) && owner(active)) { active.blur(); }
  }, true);
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    if (e.defaultPrevented || e.ctrlKey || e.altKey || e.metaKey || !KEYS.includes(e.key) || typing(t)) {
      return;
    }
    // the explorer holding the focus; else the one just clicked, when the focus went to a box
    // around it (a click on text focuses the page, or a notebook's cell); else, with the focus
    // on the page itself (a page just loaded), the first explorer on screen
    let root = owner(t);
    if (!root && last && last.isConnected && t && t.contains && t.contains(last)) { root = last; }
    if (!root && (!t || t === document.body || t === document.documentElement)) {
      const roots = Array.from(document.querySelectorAll(ROOT));
      root = roots.find(onScreen) || roots[0];
    }
    const button = root && root.querySelector('button.%(button)s' + e.key);
    if (button) {
      e.preventDefault();
      button.click();
    }
  });
})();
"""


def script() -> str:
    """The page-wide key listener (JavaScript), with this module's keys and class names."""
    import json

    return SCRIPT % {"keys": json.dumps(list(KEYS)), "root": ROOT_CLASS, "button": BUTTON_CLASS}


def key_buttons(handler) -> W.Box:
    """One hidden button per key (CSS class ``turs-key-<key>``): the page-wide listener clicks
    them, and each click calls ``handler(key)``."""
    buttons = []
    for key, meaning in KEYS.items():
        b = W.Button(description=meaning, tooltip=key)
        b.add_class(BUTTON_CLASS + key)
        b.on_click(lambda _, key=key: handler(key))
        buttons.append(b)
    return W.Box(buttons, layout=W.Layout(display="none"))


def key_events(source, handler):
    """An ipyevents listener for key presses with the mouse over ``source`` (None without ipyevents)."""
    try:
        from ipyevents import Event
    except ImportError:  # pragma: no cover - ipyevents is in the explorer extra
        return None
    events = Event(source=source, watched_events=["keydown"], prevent_default_action=True)
    events.on_dom_event(lambda event: handler(event.get("key")) if event.get("key") in KEYS else None)
    return events


def display_with_keys(widget) -> None:
    """Display ``widget`` after the page-wide key listener (once per page: the script checks)."""
    from IPython.display import Javascript, display

    display(Javascript(script()))
    display(widget._repr_mimebundle_(), raw=True)
