// What the admin page sends the preview frame (/admin/preview) to show: the widget's look, the
// project's name, the language, and the widget API's answers for the sample member.

/** The widget's look: the settings the Widget page edits (as GET /project holds them under `widget`). */
export interface Look {
  theme: { primaryColor: string; backgroundColor: string; textColor: string; borderRadius: number; fontFamily: string | null };
  position: 'left' | 'right';
  displayMode: 'floating' | 'custom';
  languages: string[];
  defaultLanguage: string;
  programName: string | null;
  /** The floating launcher's text before the balance; null: the balance alone. */
  launcherText: string | null;
}

/** The sections the preview may open at once (the catalog's kinds); null shows the home. */
export type PreviewPanel = 'rewards' | 'quests' | 'badges' | 'games' | 'checkin';

export interface PreviewRequest {
  type: 'punchcard-preview';
  projectName: string;
  language: string;
  look: Look;
  panel: PreviewPanel | null;
  /** false: the widget stays closed, showing its launcher (the Widget page's launcher preview). */
  open: boolean;
  /** The sample member's name and level names, in the admin's words. */
  sample: { name: string; level: string; nextLevel: string };
  /** Answers by widget API path (`/rewards`); any other path answers 404, which hides its section. */
  answers: Record<string, unknown>;
}

/** The frame's word that it is listening. */
export const READY = 'punchcard-preview-ready';
