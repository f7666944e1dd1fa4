import { join } from "node:path";
import { createLocalBlobStore, createVercelBlobStore } from "./adapters/blob";
import type { Config } from "./core/config";
import { FILES_PATH } from "./core/public-files";
import type { SecretBox } from "./core/secrets";
import type { AssetStorage } from "./mail/deps";
import { localUploadUrlSigner } from "./mail/assets/upload-signature";

/** Where the embedded mode receives signed uploads (`PUT /mail/v1/uploads/<assetId>?token=…`). */
const UPLOADS_PATH = "/mail/v1/uploads";

/**
 * The upload signing key is derived from the encryption key (HKDF, bound to this purpose) rather than
 * configured separately: one secret less to provision and rotate, and it still differs from every other
 * key derived from the same root.
 */
export function uploadSigningSecret(secrets: SecretBox): string {
  return secrets.deriveKey("mail.asset-upload-url.v1").toString("base64url");
}

/**
 * Vercel Blob when `BLOB_READ_WRITE_TOKEN` is set (uploads go straight to Blob with a client token),
 * otherwise a directory under `DATA_DIR/blobs`: the app receives the signed PUT and serves the files, and
 * every URL it hands out starts with `PUBLIC_BASE_URL`.
 */
export function createAssetStorage(input: { config: Config; secrets: SecretBox; publicBaseUrl: string }): AssetStorage {
  const { config } = input;
  const uploadSecret = uploadSigningSecret(input.secrets);
  if (config.BLOB_READ_WRITE_TOKEN) {
    return { blobs: createVercelBlobStore({ token: config.BLOB_READ_WRITE_TOKEN }), local: null, uploadSecret };
  }
  const base = input.publicBaseUrl;
  const local = createLocalBlobStore({
    directory: join(config.DATA_DIR, "blobs"),
    filesBaseUrl: `${base}${FILES_PATH}`,
    signUploadUrl: localUploadUrlSigner({ uploadsBaseUrl: `${base}${UPLOADS_PATH}`, secret: uploadSecret }),
  });
  return { blobs: local, local, uploadSecret };
}
