// setAtomic, from before `set` existed: the same all-or-nothing write.
import { set } from "./write.js";

/** The same as `set` (kept for code written before it). */
export const setAtomic = set;
