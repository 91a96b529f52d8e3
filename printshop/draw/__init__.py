"""Drawing a face: templates, typesetting, the SVG check and the cairo renderer."""
