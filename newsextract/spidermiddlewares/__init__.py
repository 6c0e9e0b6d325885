"""Spider middlewares: what a spider of the user's own yields, made ready for the item stage."""
