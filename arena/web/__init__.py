"""Watching matches in a browser: the self-contained HTML replay page, tournament reports
and the small local web server that serves them from the database."""
