/** Every env key a storage attachment injects, defined once. */
export const S3_ENDPOINT = "S3_ENDPOINT";
export const S3_BUCKET = "S3_BUCKET";
export const S3_REGION = "S3_REGION";
export const S3_ACCESS_KEY = "S3_ACCESS_KEY";
export const S3_SECRET_KEY = "S3_SECRET_KEY";
export const STORAGE_ENV_KEYS = [S3_ENDPOINT, S3_BUCKET, S3_REGION, S3_ACCESS_KEY, S3_SECRET_KEY] as const;
