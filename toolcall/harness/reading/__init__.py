"""Reading a body: the wire table and its reader, the cut rules, the walk, the streams."""
