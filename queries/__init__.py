"""Neo4j stage: Cypher query files, the loader, the query runner and the local server launcher."""
