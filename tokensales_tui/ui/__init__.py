"""The Textual user interface: app, screens, resource tabs, modals and widgets."""
