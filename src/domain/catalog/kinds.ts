import type { CatalogKind } from './catalog-items.ts';
import { badges } from './badge-kind.ts';
import { games } from './game-kind.ts';
import { levels } from './level-kind.ts';
import { multipliers } from './multiplier-kind.ts';
import { promoCodes } from './promo-code-kind.ts';
import { quests } from './quest-kind.ts';
import { rewards } from './reward-kind.ts';

/** The seven catalogs, in the order a seed file is imported (referenced kinds first). */
export const CATALOG_KINDS: CatalogKind[] = [levels, badges, rewards, quests, games, promoCodes, multipliers];
