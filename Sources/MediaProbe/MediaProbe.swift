// MediaProbe — work in progress (see issues).
