// Loader, last steps: entities no paper links any more are deleted.
MATCH (e:Entity)
WHERE NOT EXISTS { (e)<-[:PROPOSES|USES|MENTIONS]-(:Paper) }
DETACH DELETE e
