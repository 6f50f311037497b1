"""The HTTP layer: Flask blueprints, marshmallow schemas and the one error-to-problem mapping."""
