"""``caretaker run -- COMMAND``: heal a Python command that crashes, with the engine's parts.

command.py runs COMMAND (bounded output, timeout, stdin from /dev/null) and reads a Python
command's target; hook.py is the child's side of recording (a ``sitecustomize`` that installs an
excepthook); child.py runs the target again with a candidate's files swapped in memory;
check.py is the Check of a command; heal.py drives one heal and main.py is the subcommand.
"""
