// FixtureServer — work in progress (see issues).
