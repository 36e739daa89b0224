"""The model layer behind the public chat: interface, prompt building, Bedrock and offline models."""
