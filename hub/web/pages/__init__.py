"""The dashboard's read views: each page handler, the view models it shows, and its JSON twin."""
