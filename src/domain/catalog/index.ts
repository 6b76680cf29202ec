import type { CatalogKind } from '../catalog.ts';
import { badges } from './badges.ts';
import { games } from './games.ts';
import { levels } from './levels.ts';
import { multipliers } from './multipliers.ts';
import { promoCodes } from './promo-codes.ts';
import { quests } from './quests.ts';
import { rewards } from './rewards.ts';

/** The seven catalogs, in the order a seed file is imported (referenced kinds first). */
export const CATALOG_KINDS: CatalogKind[] = [levels, badges, rewards, quests, games, promoCodes, multipliers];
