"""Writing files: pages drawn to PDF or pixels, PDFs joined, the cover and contents page."""
