"""Print the text of each page of a PDF (a fixture: it is never run)."""
import sys

print(sys.argv[1:])
