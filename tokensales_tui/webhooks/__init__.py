"""Webhook deliveries: signing and checking them (:mod:`.signatures`), receiving,
forwarding and keeping them (:mod:`.receiver`). No Textual, no Rich."""
