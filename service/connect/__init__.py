"""The browser adapter: the same five services over the Connect protocol and gRPC-Web
(``connectrpc`` on an ASGI server in the gRPC server's event loop), the web table's static
files and the development sign-in. Every call goes through the gRPC servicers and interceptors
of ``service.api`` (``service.connect.bridge``): no handler is implemented twice. Imports
``service.api`` and ``service.app``; neither imports it."""
