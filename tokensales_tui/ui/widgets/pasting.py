"""Every text field takes a paste once, in one place, cleaned its own way.

Textual hands an ``events.Paste`` to every class of a widget that has a handler for it,
from the widget's own class down to Textual's ``Input`` or ``TextArea``, unless one of
them calls ``prevent_default()``. A field whose handler did its work and then called
the base class's handler (or let the event go on to it) took the paste twice: pasting
``abc.sold, item.sold`` into the webhook form's events gave
``abc.sold, item.soldabc.sold, item.sold``.

:class:`TakesPastes` is the only handler of a paste in the app's fields: it stops the
event, so no handler below it runs, and puts :meth:`~TakesPastes.pasted` of the text at
the cursor, over the selection. A field says how a paste is cleaned by overriding
:meth:`~TakesPastes.pasted`, never by handling the event. ``ctrl+v`` (the app's own
clipboard) goes the same way: Textual's put the copied text, line breaks and all, into
a single-line field.

A paste is one edit, and a refusal of it is said once: a paste too long for a field
whose rest the field also refused (a bounded field with a pattern) rang the bell twice,
once for the cut and once for the refusal. While a paste is taken, the field's
``restricted`` (Textual's bell) answers its first call only.
"""

from __future__ import annotations

from textual import events

__all__ = ["TakesPastes"]


class TakesPastes:
    """A text field that takes each paste once: :meth:`pasted` of it, at the cursor.

    Put it before Textual's ``Input`` or ``TextArea`` among the bases, so that its handler
    comes first. A field's ``action_paste`` (``ctrl+v``, the app's own clipboard) calls
    :meth:`take_paste` too.
    """

    _taking_paste = False
    _refusal_said = False

    def pasted(self, text: str) -> str:
        """What a paste of ``text`` puts into the field (as it is, unless a field says
        otherwise)."""
        return text

    def put_pasted(self, text: str) -> None:
        """Put ``text`` (already :meth:`pasted`) at the cursor, over the selection."""
        raise NotImplementedError

    def _on_paste(self, event: events.Paste) -> None:
        # Stopped and its default prevented: no handler of a class below this one runs.
        event.stop()
        event.prevent_default()
        self.take_paste(event.text)

    def take_paste(self, text: str) -> None:
        """Take ``text`` as pasted: :meth:`pasted` of it, put at the cursor once, a refusal
        of it said once."""
        if cleaned := self.pasted(text):
            self._taking_paste, self._refusal_said = True, False
            try:
                self.put_pasted(cleaned)
            finally:
                self._taking_paste = False

    def restricted(self) -> None:
        """Say that what was typed or pasted was refused (Textual's ``Input`` rings the
        bell): once for a paste, however many parts of it were refused."""
        if self._taking_paste:
            if self._refusal_said:
                return
            self._refusal_said = True
        super().restricted()  # type: ignore[misc]
