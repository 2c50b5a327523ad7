import pytest

from task_graph import Task, depends, run_order


def graph(names, edges):
    """The tasks of names, each (task, on) of edges making task wait for on."""
    tasks = {name: Task(name) for name in names}
    for task, on in edges:
        depends(tasks[task], on=tasks[on])
    return list(tasks.values())


def test_independent_tasks_keep_their_order():
    assert run_order(graph("abc", [])) == ["a", "b", "c"]


def test_a_task_after_the_one_it_waits_for():
    assert run_order(graph("ba", [("b", "a")])) == ["a", "b"]


@pytest.mark.parametrize(
    ("names", "edges", "expected"),
    [
        ("abc", [("c", "a"), ("b", "a"), ("c", "b")], ["a", "b", "c"]),
        ("abcd", [("d", "a"), ("b", "a"), ("c", "b"), ("d", "c")], ["a", "b", "c", "d"]),
        ("xyz", [("z", "x"), ("y", "x"), ("z", "y")], ["x", "y", "z"]),
    ],
)
def test_a_task_runs_after_all_it_waits_for(names, edges, expected):
    assert run_order(graph(names, edges)) == expected
