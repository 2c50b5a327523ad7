"""Tasks that wait for other tasks: the order to run them in."""


class Task:
    def __init__(self, name):
        self.name = name
        self.incoming_nodes = []  # the tasks this one waits for
        self.outgoing_nodes = []  # the tasks waiting for this one

    def __repr__(self):
        return f"Task({self.name!r})"


def depends(task, on):
    """task waits for on."""
    on.outgoing_nodes.append(task)
    task.incoming_nodes.append(on)


def run_order(tasks):
    """The tasks in an order in which each runs after every task it waits for (Kahn)."""
    ordered = [task for task in tasks if not task.incoming_nodes]
    for node in ordered:
        for nextnode in node.outgoing_nodes:
            if nextnode not in ordered and all(
                other in ordered for other in nextnode.outgoing_nodes
            ):
                ordered.append(nextnode)
    return [task.name for task in ordered]
