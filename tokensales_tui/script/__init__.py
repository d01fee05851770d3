"""The scripting commands: ``get``, ``create``, ``update``, ``delete``, ``add``, ``api``,
``token``, ``profiles`` and ``completion``.

They share the profiles, the API client and the form checks with the terminal app,
and never import Textual or Rich, so they start fast:

- :mod:`.parser`: the commands' arguments (argparse only, imported with the parser);
- :mod:`.run`: opening a session, running a command, turning failures into exit codes;
- :mod:`.reads` and :mod:`.changes`: the commands themselves;
- :mod:`.output`: table, JSON, JSON lines and CSV, ``--fields`` and ``--jq``.

Data goes to stdout, messages to stderr. Exit codes: :data:`~.parser.EXIT_CODES`.
"""

from .parser import COMMANDS, EXIT_CODES, add_commands, exit_codes_text

__all__ = ["COMMANDS", "EXIT_CODES", "add_commands", "exit_codes_text"]
