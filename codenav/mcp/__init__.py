"""The hand-rolled MCP server of ``codenav mcp`` (SPEC §6): stdio, newline-delimited JSON-RPC.

framing.py   bytes lines <-> JSON values, the wire writer, the JSON-RPC error object
dispatch.py  message classification, per-request era routing, method tables, error mapping
handlers.py  initialize, server/discover, ping, tools/list, tools/call
server.py    ``serve()``: claims stdin/stdout, reads until EOF, runs tool calls in workers
"""
