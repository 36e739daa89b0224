"""Data access. The only code that talks to DynamoDB and S3.

Repositories take an injected boto3 client, speak in records, and turn
``ClientError`` into domain errors; nothing above them imports boto3.
"""
