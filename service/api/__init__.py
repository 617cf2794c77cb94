"""The gRPC adapter: the server, one servicer per service, all proto mapping, error
mapping, authentication, quotas, TLS and request logging. Imports the application, never
the command line."""
