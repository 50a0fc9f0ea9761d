// The entry the bundler tests bundle (Vite through vite.html; esbuild and webpack directly).
import { start } from "./entry-run.js";

start();
