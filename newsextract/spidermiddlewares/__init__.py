"""Spider middlewares, one module a concern: what a spider of the user's own yields, made
ready for the item stage; a page the state store could not take, as a failure record."""
