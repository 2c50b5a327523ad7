from edit_permission import can_edit

ALICE = {"name": "alice", "admin": False}
ROOT = {"name": "root", "admin": True}
NOTES = {"owner": "alice", "locked": False}


def test_an_admin_owner_may_edit():
    assert can_edit({"name": "alice", "admin": True}, NOTES)


def test_nobody_may_edit_a_locked_document():
    locked = {"owner": "alice", "locked": True}
    assert not can_edit(ALICE, locked)
    assert not can_edit(ROOT, locked)


def test_others_may_not_edit():
    assert not can_edit({"name": "bob", "admin": False}, NOTES)


def test_the_owner_may_edit():
    assert can_edit(ALICE, NOTES)


def test_an_admin_may_edit_anything():
    assert can_edit(ROOT, NOTES)
