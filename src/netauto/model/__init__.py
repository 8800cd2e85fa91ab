"""Resolution of the source of truth into the fabric model (`netauto.model.resolve.resolve`).

The package itself imports nothing: the resolved model's types (`types`, `cluster`) load without the
inventory schema and pydantic (a render after a drain unpickles switches and renders them:
`netauto.render.local_edit`).
"""
