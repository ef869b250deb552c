"""The local web page: a Flask app factory that renders what the running game session holds."""
