"""Where indexes live: one interface, SQLite files (one machine) or PostgreSQL + pgvector (a
team), and the choice between them."""
