// InboxCards — work in progress (see issues).
