"""Wire models (camelCase on the wire, exactly the spec's fields) and storage records."""
