"""Who may edit a shared document."""


def can_edit(user, document):
    """Owners may edit their documents and admins any document, unless it is locked."""
    if document["locked"]:
        return False
    return user["name"] == document["owner"] and user["admin"]
