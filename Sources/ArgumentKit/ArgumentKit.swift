// ArgumentKit — work in progress (see issues).
