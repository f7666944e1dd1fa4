import type { AdsDeps } from "../../deps";
import type { AdsRouter } from "../shared";
import { registerListImages } from "./images-list";
import { registerUploadImage } from "./images-upload";
import { registerCreateVideo } from "./videos-create";
import { registerGetVideo } from "./videos-get";
import { registerListVideos } from "./videos-list";

export function registerMediaRoutes(router: AdsRouter, deps: AdsDeps): void {
  registerUploadImage(router, deps);
  registerListImages(router, deps);
  registerCreateVideo(router, deps);
  registerListVideos(router, deps);
  registerGetVideo(router, deps);
}
