"""`toolcall report`: the last runs' JSON made into a static site a reader opens from a file.

The reports folder holds what the runs wrote (conformance, matrix, gateways, probes, doctor);
`inputs` reads and validates each against its schema, the page modules turn them into HTML, and
`build` writes the pages. Everything a page needs is in the page: its style and script inline, no
fonts or scripts fetched, so the site works from `file://` with no network, and the matrix page
carries its cells as JSON its own script renders and filters (docs/DESIGN.md, "The site is drawn
from the runs' JSON alone").
"""
