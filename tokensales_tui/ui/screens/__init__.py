"""The app's screens and modal dialogs, one module each."""
